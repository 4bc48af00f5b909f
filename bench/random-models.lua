-- wrk script: GET /api/models/{id} of a random SYNTHETIC model out of N (env N; env SEED), ids as
-- packages/core-index/src/testing/scale.ts `syntheticModels` makes them.
local n = tonumber(os.getenv("N"))
math.randomseed(tonumber(os.getenv("SEED") or "42"))
request = function()
  local i = math.random(0, n - 1)
  local owner
  if i % 97 == 5 then owner = "dotted.org-" .. (i % 7) else owner = "synthetic-org-" .. (i % 211) end
  local suffix = ""
  if i % 3 == 0 then suffix = "-GGUF" end
  return wrk.format("GET", "/api/models/" .. owner .. "/model-" .. i .. suffix)
end
