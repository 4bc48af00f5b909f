// The id of SYNTHETIC model `i`, as packages/core-index/src/testing/scale.ts `syntheticModels` makes it, so the scale
// benches pick ids without holding the model list (bench/random-models.lua and bench/hot-routes.lua spell it in Lua).
export function idOf(i) {
  const owner = i % 97 === 5 ? `dotted.org-${i % 7}` : `synthetic-org-${i % 211}`;
  return `${owner}/model-${i}${i % 3 === 0 ? '-GGUF' : ''}`;
}
