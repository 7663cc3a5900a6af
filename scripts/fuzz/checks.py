"""Checks of Caretide's own for the schemathesis runs of scripts/fuzz-http (loaded through SCHEMATHESIS_HOOKS)."""
import schemathesis

# Every answer of the API is a document, a page of a list (at most 200 items) or a problem naming failing fields: a
# few hundred KB at the very most. An answer beyond that, or beyond 16 times what was sent, echoes or amplifies.
ANSWER_FLOOR = 512 * 1024
AMPLIFICATION = 16
# Documents served as they are, whatever the request.
DOCUMENTS = ("/openapi.json", "/asyncapi.yaml", "/schemas/", "/metrics")


@schemathesis.check
def response_size_bounded(ctx, response, case):
    """No answer much larger than its request warrants."""
    if case.path.startswith(DOCUMENTS):
        return
    sent = len(response.request.body or b"")
    allowed = max(ANSWER_FLOOR, AMPLIFICATION * sent)
    if len(response.content) > allowed:
        raise AssertionError(f"a {len(response.content)}-byte answer to a {sent}-byte request (at most {allowed})")


# HL7 v2 messages are ER7 text: sent as text, like text/plain (a generated value that is not a string goes as its JSON).
schemathesis.serializer.alias("x-application/hl7-v2+er7", "text/plain")
