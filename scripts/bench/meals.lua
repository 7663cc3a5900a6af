-- wrk script: one meal record per request (a food of USDA SR28 by grams), each with a new mealId, spread over 1,000
-- patients and 28 days, so each meal changes a day that scoring analyses again.
-- Arguments: the bearer token (a service client with patients:write), and a run number that keeps the ids of
-- successive runs apart.
dofile("scripts/bench/wrk-answers.lua")
foods = { "01001", "01009", "01077", "01123", "09003", "11124", "16043", "20045" }

function init(args)
  counter = 0
  run = tonumber(args[2] or "0") or 0
  headers = headers_for(args[1], "application/json")
end

function request()
  counter = counter + 1
  local id = string.format("%08x-%04x-4000-8000-%012x", thread_number, run % 65536, counter)
  local patient = "bench-" .. (counter % 1000)
  local day = 1 + math.floor(counter / 1000) % 28
  local body = string.format(
    '{"mealId":"%s","foodId":"%s","grams":%d,"meal":"lunch","eatenAt":"2026-10-%02dT12:30:00Z","timeZone":"Europe/Lisbon"}',
    id, foods[1 + counter % #foods], 50 + counter % 200, day)
  return wrk.format("POST", "/v1/patients/" .. patient .. "/meals", headers, body)
end
