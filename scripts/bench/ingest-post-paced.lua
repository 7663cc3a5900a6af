-- ingest-post.lua, each connection waiting PACE_MS milliseconds after an answer before its next request: the HTTP
-- floor driven at the request rate ingest-post reaches instead of flat out (scripts/bench/http-floor's fourth argument).
dofile("scripts/bench/ingest-post.lua")

local pace = tonumber(os.getenv("PACE_MS") or "0") or 0

function delay()
  return pace
end
