// Structured JSON logs through pino, one object per line on stdout (or the destination given).
// By default the logger redacts what the specification forbids in broker logs: exact locations,
// customer identity and goods details, and the external references of execution records (they
// name other systems' orders and trips, rule 7). Redaction is by field name at any depth, so a new
// resource cannot leak through a forgotten path; pino's own `redact` takes fixed paths, which is
// why the walk below runs as its log formatter instead.
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';

// Matched anywhere in the name (pickupAddress, goodsProfile, vehicleRegistration, ...).
const REDACTED_FIELDS = /address|street|postal|postcode|coordinates|geometry|^(lat|lon|lng)$|latitude|longitude|location|customer|consignee|consignor|contact|goods|cargo|commodity|price|commercial|registration|^notes$|restricted|external|^position$|^package$|^stops$|instructions/i;

// Secrets, whatever LOG_REDACT says: a signing secret, a client secret, a password, a sealed value,
// a credential header (docs/decisions.md, "Secrets at rest").
const SECRET_FIELDS = /secret|password|^sealed$|^authorization$|^cookie$|api_?key/i;

export type Level = 'debug' | 'info' | 'warn' | 'error';

export function redact(value: unknown, depth = 0, fields: RegExp[] = [REDACTED_FIELDS, SECRET_FIELDS]): unknown {
  if (depth > 12 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, fields));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = fields.some((f) => f.test(k)) ? '[redacted]' : redact(v, depth + 1, fields);
  return out;
}

/** pino's logger: `log.info({ fields }, 'message')`. */
export type Logger = PinoLogger;

/**
 * @param destination where lines go (tests pass a stream that collects them); stdout by default,
 * written synchronously so that the last lines before a crash are not lost.
 */
export function createLogger(options: { level: Level; redact: boolean }, destination?: DestinationStream): Logger {
  return pino(
    {
      level: options.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redact(fields, 0, options.redact ? [REDACTED_FIELDS, SECRET_FIELDS] : [SECRET_FIELDS]) as Record<string, unknown>,
      },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
