-- wrk script: one blood-pressure reading per request, each with a new measurementId, spread over 1,000 patients.
-- Arguments: the bearer token (a service client with patients:write), and a run number that keeps the ids of
-- successive runs apart (a re-sent id would be a cheaper duplicate).
-- A global, not a local: `setup` runs in the main state, and `thread:set` gives each thread's state its own value
-- of the global (a local of the chunk would shadow it with 0 in every thread, and the threads would send the same
-- ids: half the requests duplicates).
threads_started = 0
threads = {}

function setup(thread)
  thread:set("thread_number", threads_started)
  threads_started = threads_started + 1
  table.insert(threads, thread)
end

function init(args)
  counter = 0
  run = tonumber(args[2] or "0") or 0
  headers = { ["Content-Type"] = "application/json" }
  if args[1] and args[1] ~= "" then headers["Authorization"] = "Bearer " .. args[1] end
end

function request()
  counter = counter + 1
  local id = string.format("%08x-%04x-4000-8000-%012x", thread_number, run % 65536, counter)
  local patient = "bench-" .. (counter % 1000)
  local body = string.format(
    '{"measurementId":"%s","systolic":%d,"diastolic":%d,"takenAt":"2026-11-20T08:00:00Z"}',
    id, 110 + counter % 60, 70 + counter % 30)
  return wrk.format("POST", "/v1/patients/" .. patient .. "/measurements/blood-pressure", headers, body)
end

-- Counts the answers: every reading is new, so every answer should be 201 (a 200 would be a duplicate, cheaper).
function response(status, headers, body)
  answers = answers or {}
  answers[status] = (answers[status] or 0) + 1
end

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
