import type { Logger } from '@hub/core-index';
import pino from 'pino';

/** Fields that could hold credentials; pino replaces them wherever they appear. */
export const REDACT_PATHS = [
  'authorization',
  'cookie',
  'token',
  '*.authorization',
  '*.cookie',
  '*.token',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'config.publisherTokens',
  'config.registryTokens',
];

export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger & pino.Logger {
  const opts: pino.LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: 'model-hub' },
    redact: { paths: REDACT_PATHS, censor: '[dropped]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return (options.destination ? pino(opts, options.destination) : pino(opts)) as Logger & pino.Logger;
}
