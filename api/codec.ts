// The codec server (issue 52 part 2; docs/deployment.md, "Temporal payloads encrypted"): the
// Temporal UI's remote codec endpoint, so that an operator still reads the payloads the broker
// sealed (core/payload-codec.ts). POST /codec/decode and /codec/encode take and answer
// `{ "payloads": [{ "metadata": { name: base64 }, "data": base64 }] }`, as Temporal's codec
// server protocol has it; CORS for the UI origins configured (CODEC_CORS_ORIGINS).
//
// Who may: `Authorization: Bearer <CODEC_TOKEN>` (the operator's UI passes it); without a token
// configured, only a development broker answers, and only to a caller on its own machine (the
// `npm start` UI): decoded payloads are everything the exchange holds.
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Payload } from '@temporalio/common';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { publicOperation } from './operations';
import { clientAddress } from './client-certificate';
import { dataConverterOf } from '../core/temporal';
import { fromWire, toWire, type WirePayload } from '../core/payload-codec';

export const codec = new Hono<AppEnv>();

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1)$/;

function allowed(c: Context<AppEnv>): void {
  const { config } = c.get('services');
  const token = config.codecServer.token;
  if (token) {
    const given = Buffer.from(/^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? '');
    if (given.length === Buffer.byteLength(token) && timingSafeEqual(given, Buffer.from(token))) return;
    throw new Problem('UNAUTHENTICATED', 'the codec server needs Authorization: Bearer with the CODEC_TOKEN', {}, { 'www-authenticate': 'Bearer' });
  }
  if (config.mode === 'development' && LOOPBACK.test(clientAddress(c))) return;
  throw new Problem('ACTOR_NOT_PERMITTED', 'the codec server answers with CODEC_TOKEN configured, or on a development broker to its own machine');
}

/** CORS for the Temporal UI's origins (the UI calls the codec from the operator's browser). */
function cors(c: Context<AppEnv>): Record<string, string> {
  const origin = c.req.header('origin');
  if (!origin || !c.get('services').config.codecServer.origins.includes(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'content-type, x-namespace, authorization',
    vary: 'origin',
  };
}

const BASE64 = '^[A-Za-z0-9+/]*={0,2}$';
const payloadsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['payloads'],
  properties: {
    payloads: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['metadata', 'data'],
        properties: { metadata: { type: 'object', additionalProperties: { type: 'string', pattern: BASE64 } }, data: { type: 'string', pattern: BASE64 } },
      },
    },
  },
};

/** Whether `body` is a list of payloads as the protocol has them (payloadsSchema), with the pointer of the first thing that is not. */
function wrongIn(body: unknown): string | undefined {
  const base64 = new RegExp(BASE64);
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(body) || Object.keys(body).some((k) => k !== 'payloads') || !Array.isArray(body.payloads) || body.payloads.length > 1000) return '/payloads';
  for (const [i, p] of body.payloads.entries()) {
    if (!isObject(p) || Object.keys(p).some((k) => k !== 'metadata' && k !== 'data')) return `/payloads/${i}`;
    if (typeof p.data !== 'string' || !base64.test(p.data)) return `/payloads/${i}/data`;
    if (!isObject(p.metadata) || Object.values(p.metadata).some((v) => typeof v !== 'string' || !base64.test(v))) return `/payloads/${i}/metadata`;
  }
  return undefined;
}

/** A page of the UI's payloads; a larger body is refused before it is read. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

// The UI's preflight (a JSON POST from another origin), then the body's limit.
codec.use('/codec/*', async (c, next) => {
  if (c.req.method === 'OPTIONS') return c.body(null, 204, cors(c));
  await next();
});
codec.use(
  '/codec/*',
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new Problem('PAYLOAD_TOO_LARGE', `the body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  }),
);

for (const direction of ['decode', 'encode'] as const) {
  publicOperation(codec, {
    method: 'POST', path: `/codec/${direction}`, answers: [200],
    doc: {
      id: `${direction}Payloads`,
      summary: direction === 'decode' ? "Open Temporal payloads the broker sealed (the Temporal UI's codec server)" : 'Seal Temporal payloads as the broker does',
      description:
        "Temporal's remote codec protocol: `{\"payloads\": [{\"metadata\": {...}, \"data\": \"<base64>\"}]}` in and out. " +
        'Needs `Authorization: Bearer <CODEC_TOKEN>`; without one configured, only a development broker answers, to its own machine. ' +
        'A payload the broker did not seal passes through unchanged.',
      tag: 'Health',
      requestBody: { required: true, content: { 'application/json': { schema: payloadsSchema } } },
      responses: {
        '200': { description: 'The payloads, decoded (or encoded).', content: { 'application/json': { schema: payloadsSchema } } },
        '401': true,
        '403': true,
      },
    },
  }, async (c) => {
    for (const [name, value] of Object.entries(cors(c))) c.header(name, value);
    allowed(c);
    const body = (await c.req.json().catch(() => undefined)) as { payloads: WirePayload[] } | undefined;
    const wrong = wrongIn(body);
    if (wrong) throw new Problem('VALIDATION_FAILED', 'the body is {"payloads": [{"metadata": {"<name>": "<base64>"}, "data": "<base64>"}]}, at most 1000 payloads', { errors: [{ pointer: wrong, message: 'is not as the codec protocol has it' }] });
    const [payloadCodec] = dataConverterOf(c.get('services').config).payloadCodecs;
    let out: Payload[];
    try {
      out = await payloadCodec[direction](body!.payloads.map(fromWire));
    } catch (err) {
      throw new Problem('VALIDATION_FAILED', `a payload does not open: ${(err as Error).message}`, { errors: [{ pointer: '/payloads', message: 'does not open with this broker\u2019s keys' }] });
    }
    return c.json({ payloads: out.map(toWire) }, 200, { 'cache-control': 'no-store' });
  });
}
