import type { FileRecord } from './schemas.js';

const WEIGHT = /\.(gguf|safetensors|bin|pt|pth|ckpt|onnx|h5|msgpack|ot|tflite|mlmodel|npz|gguf\.part\d+)$/i;

export function isWeightFile(path: string): boolean {
  return WEIGHT.test(path);
}

/** The bytes of a model's weight files (what the site and the tools show as its size). */
export function weightBytesOf(files: readonly FileRecord[]): number {
  return files.reduce((n, f) => n + (isWeightFile(f.path) ? f.size : 0), 0);
}
