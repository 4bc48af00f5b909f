-- wrk script: GET /api/models/{id} of a random SYNTHETIC model out of N (env N; env SEED), ids as
-- packages/core-index/src/testing/scale.ts `syntheticModels` makes them (bench/synthetic-id.lua). Uniform by default; with SKEW=1 close to
-- Zipf's law of exponent 1 (the k-th most asked model asked about 1/k as often): a log-uniform position, so models 0
-- to 9 are asked as often as 10 to 99, and as 100 to 999. With BUST=1 every URL carries an ignored `?_=k` of its own,
-- so no kept answer matches while the model and its prepared body stay warm (the cost of the route itself).
local id = dofile((debug.getinfo(1, "S").source:match("^@(.*)/") or ".") .. "/synthetic-id.lua")
local n = tonumber(os.getenv("N"))
local skew = os.getenv("SKEW") == "1"
local bust = os.getenv("BUST") == "1"
local asked = 0
local logn = math.log(n + 1)
math.randomseed(tonumber(os.getenv("SEED") or "42"))
request = function()
  local i
  if skew then
    i = math.floor(math.exp(math.random() * logn)) - 1
    if i >= n then i = n - 1 end
  else
    i = math.random(0, n - 1)
  end
  local query = ""
  if bust then
    asked = asked + 1
    query = "?_=" .. asked
  end
  return wrk.format("GET", "/api/models/" .. id(i) .. query)
end
