// Structured JSON logs, one object per line on stdout. By default the logger redacts what the
// specification forbids in broker logs: exact locations, customer identity and goods details, and
// the external references of execution records (they name other systems' orders and trips, rule 7).
// Redaction is by field name at any depth, so a new resource cannot leak through a forgotten path.

// Matched anywhere in the name (pickupAddress, goodsProfile, vehicleRegistration, ...).
const REDACTED_FIELDS = /address|street|postal|postcode|coordinates|geometry|^(lat|lon|lng)$|latitude|longitude|location|customer|consignee|consignor|contact|goods|cargo|commodity|price|commercial|registration|^notes$|restricted|external|^position$|^package$|^stops$|instructions/i;

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 12 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = REDACTED_FIELDS.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(options: { level: Level; redact: boolean }, write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const log = (level: Level) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[level] < ORDER[options.level]) return;
    const body = options.redact ? (redact(fields) as Record<string, unknown>) : fields;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...body }));
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
