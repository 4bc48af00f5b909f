-- The id of SYNTHETIC model `i` (and `i`), as core-index's `syntheticId` (packages/core-index/src/testing/scale.ts)
-- makes it; loaded by bench/random-models.lua and bench/hot-routes.lua. `node bench/synthetic-ids.mjs --check` compares
-- it with core-index's through wrk.
return function(i)
  local owner
  if i % 97 == 5 then owner = "dotted.org-" .. (i % 7) else owner = "synthetic-org-" .. (i % 211) end
  local suffix = ""
  if i % 3 == 0 then suffix = "-GGUF" end
  return owner .. "/model-" .. i .. suffix, i
end
