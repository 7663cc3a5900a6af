-- Shared by the wrk scripts of scripts/bench (loaded with dofile from the repository's root): makes the headers, numbers each thread,
-- so the ids a script makes differ between threads, and counts the answers by status across all threads.
-- `thread_number` is a global, not a local: `setup` runs in the main state, and `thread:set` gives each thread's
-- state its own value of the global (a local of the chunk would shadow it with 0 in every thread, and the threads
-- would send the same ids).
-- `headers_for(token, content_type)`: the request headers, with the bearer token when there is one (a build without
-- authentication ignores it).
function headers_for(token, content_type)
  local headers = { ["Content-Type"] = content_type }
  if token and token ~= "" then headers["Authorization"] = "Bearer " .. token end
  return headers
end

threads_started = 0
threads = {}

function setup(thread)
  thread:set("thread_number", threads_started)
  threads_started = threads_started + 1
  table.insert(threads, thread)
end

function response(status, headers, body)
  answers = answers or {}
  answers[status] = (answers[status] or 0) + 1
end

-- Prints "answers: 201: n, …": every request of a run should be new, so every answer a 201.
function done(summary, latency, requests)
  local totals = {}
  for _, thread in ipairs(threads) do
    local answers = thread:get("answers") or {}
    for status, count in pairs(answers) do totals[status] = (totals[status] or 0) + count end
  end
  local parts = {}
  for status, count in pairs(totals) do table.insert(parts, status .. ": " .. count) end
  table.sort(parts)
  io.write("answers: " .. table.concat(parts, ", ") .. "\n")
end
