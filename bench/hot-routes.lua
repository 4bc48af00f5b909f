-- wrk script: the hub's hot routes in turn (a browse page, a search, a model, a resolve, a manifest) over SYNTHETIC
-- models of an index of N (env N), a few hundred models asked again and again, as a hot set is.
local n = tonumber(os.getenv("N"))
local k = 0
local id = dofile((debug.getinfo(1, "S").source:match("^@(.*)/") or ".") .. "/synthetic-id.lua")
request = function()
  k = k + 1
  local m, i = id((k * 7) % math.min(n, 300))
  local r = k % 5
  if r == 0 then return wrk.format("GET", "/api/models?limit=50") end
  if r == 1 then return wrk.format("GET", "/api/models?search=model-12&limit=50") end
  if r == 2 then return wrk.format("GET", "/api/models/" .. m) end
  if r == 3 then return wrk.format("GET", "/" .. m .. "/resolve/main/config.json") end
  return wrk.format("GET", "/v2/" .. string.lower(m) .. "/manifests/latest", { ["Accept"] = "application/vnd.oci.image.manifest.v1+json" })
end
