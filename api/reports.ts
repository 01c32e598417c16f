// GET /reports/exchange-impact: what the exchange delivered for the caller's own organization, per
// month: committed matches, loaded kilometres that would have run empty and the CO2e they avoided,
// with the method (core/exchange-impact.ts; docs/decisions.md, "What the exchange delivered"). JSON,
// or the same months as CSV (`format=csv` or `Accept: text/csv`). Only the caller's organization:
// there is no parameter naming another.
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { operation } from './operations';
import { querySingle } from './http';
import { Problem } from '../domain/problems';
import { exchangeImpact, exchangeImpactCsv, isMonth, MAX_MONTHS, monthOf, monthsBefore, monthsBetween } from '../core/exchange-impact';
import { matchedCommitments } from '../read-model/exchange-impact';

export const reports = new Hono<AppEnv>();

const invalid = (name: string, message: string) => new Problem('VALIDATION_FAILED', `query parameter ${name} ${message}`, { errors: [{ pointer: `/query/${name}`, message }] });

const monthParameter = (name: 'from' | 'to', description: string) => ({
  name, in: 'query', required: false, description,
  schema: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', examples: ['2026-11'] },
});

operation(reports, {
  method: 'GET', path: '/exchange-impact', access: { scope: 'commitments:read' }, answers: [200],
  returns: 'ExchangeImpact',
  doc: {
    id: 'getExchangeImpact',
    summary: 'What the exchange delivered: matches, loaded kilometres, CO2e avoided, per month',
    description:
      "For the caller's own organization, per month (UTC) from `from` to `to`: the committed matches it took part " +
      'in (as shipper or carrier), the kilometres that would have run empty and ran loaded (the load\u2019s road ' +
      'distance, at most the offer\u2019s leg), their tonne-kilometres and the CO2e avoided by the GLEC Framework\u2019s ' +
      'default road emission intensity (ISO 14083 aligned, well-to-wheel). `method` says how, with the factor and ' +
      'its source; each month lists its matches with the inputs of the formula. `format=csv` or `Accept: text/csv` ' +
      'answers the months as CSV (RFC 4180, a header row, the factor and its source in every row).',
    parameters: [
      monthParameter('from', 'The first month, YYYY-MM (UTC); by default 11 months before `to`.'),
      monthParameter('to', 'The last month, YYYY-MM (UTC); by default the current month. At most 120 months from `from`.'),
      { name: 'format', in: 'query', required: false, description: '`csv` for the months as CSV; `json` (the default unless Accept asks for text/csv).', schema: { type: 'string', enum: ['json', 'csv'] } },
    ],
    responses: {
      '200': {
        description: 'The report (JSON), or its months as CSV.',
        headers: { 'Content-Disposition': { description: 'With CSV: attachment, with a file name.', schema: { type: 'string' } } },
        content: {
          'application/json': { schema: { $ref: './exchange-impact.json' } },
          'text/csv': { schema: { type: 'string' } },
        },
      },
      '400': '`VALIDATION_FAILED`: a month not of the form YYYY-MM, `from` after `to`, more than 120 months, or a format other than json and csv.',
      '403': '`INSUFFICIENT_SCOPE` (commitments:read), `ORGANIZATION_INACTIVE`.',
    },
  },
}, async ({ c, principal }) => {
  const fromText = querySingle(c, 'from');
  const toText = querySingle(c, 'to');
  const format = querySingle(c, 'format');
  if (fromText !== undefined && !isMonth(fromText)) throw invalid('from', 'must be a month, YYYY-MM');
  if (toText !== undefined && !isMonth(toText)) throw invalid('to', 'must be a month, YYYY-MM');
  if (format !== undefined && format !== 'json' && format !== 'csv') throw invalid('format', 'must be json or csv');
  const to = toText ?? monthOf(new Date().toISOString());
  const from = fromText ?? monthsBefore(to, 11);
  if (from > to) throw invalid('from', 'must not be after to');
  if (monthsBetween(from, to).length > MAX_MONTHS) throw invalid('from', `must be at most ${MAX_MONTHS} months before to`);

  const me = principal.organizationId;
  const report = exchangeImpact(me, await matchedCommitments(c.get('services').db, me), from, to);
  const accept = c.req.header('accept') ?? '';
  const csv = format ? format === 'csv' : /\btext\/csv\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
  if (!csv) return c.json(report);
  const file = `exchange-impact-${me.replace(/[^A-Za-z0-9._-]/g, '_')}-${from}-${to}.csv`;
  return c.body(exchangeImpactCsv(report), 200, {
    'content-type': 'text/csv; charset=utf-8; header=present',
    'content-disposition': `attachment; filename="${file}"`,
  });
});
