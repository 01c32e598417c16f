// The implementation's own OpenAPI document, against which every answer the kit received is
// validated (JSON Schema validation family): the operation found by method and path template, the
// response by status (or `default`), its application/json or application/problem+json schema.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Exchange } from './traffic';

export interface Violation {
  exchange: number;
  operation: string;
  status: number;
  errors: string[];
}

export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly operations: Array<{ method: string; template: string; pattern: RegExp; op: any }> = [];
  private readonly compiled = new Map<string, ReturnType<Ajv2020['compile']>>();

  constructor(private readonly doc: any) {
    addFormats(this.ajv);
    // The document is one schema resource: components are reached through its own $refs.
    this.ajv.addSchema({ ...doc, $id: 'urn:conformance:openapi' }, 'openapi');
    for (const [template, item] of Object.entries<any>(doc.paths ?? {})) {
      const segments = template.split('/').map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')));
      const pattern = new RegExp(`^${segments.join('/')}$`);
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) this.operations.push({ method, template, pattern, op: item[method] });
    }
    // Literal segments before templated ones (/capacity-offers/search before /capacity-offers/{id}).
    this.operations.sort((x, y) => (x.template.match(/\{/g)?.length ?? 0) - (y.template.match(/\{/g)?.length ?? 0));
  }

  /** The violations among these exchanges (answers without a JSON body are not judged). */
  validate(exchanges: Exchange[]): { judged: number; violations: Violation[] } {
    let judged = 0;
    const violations: Violation[] = [];
    for (const x of exchanges) {
      if (x.error || x.responseBody === undefined || typeof x.responseBody !== 'object') continue;
      const path = new URL(x.url).pathname;
      const found = this.operations.find((o) => o.method === x.method.toLowerCase() && o.pattern.test(path));
      if (!found) continue;
      const responses = found.op.responses ?? {};
      const key = responses[String(x.status)] ? String(x.status) : responses.default ? 'default' : undefined;
      if (!key) {
        violations.push({ exchange: x.n, operation: `${x.method} ${found.template}`, status: x.status, errors: [`status ${x.status} is not documented`] });
        continue;
      }
      const type = (x.responseHeaders['content-type'] ?? '').split(';')[0].trim();
      const pointer = `/paths/${found.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${found.method}/responses/${key}`;
      const response = this.deref(responses[key]);
      const media = response?.content?.[type] ? type : undefined;
      if (!media) continue;
      const schemaRef = responses[key].$ref ? `urn:conformance:openapi#${responses[key].$ref.slice(1)}/content/${media.replace(/~/g, '~0').replace(/\//g, '~1')}/schema` : `urn:conformance:openapi#${pointer}/content/${media.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;
      let validate = this.compiled.get(schemaRef);
      if (!validate) {
        validate = this.ajv.compile({ $ref: schemaRef });
        this.compiled.set(schemaRef, validate);
      }
      judged++;
      if (!validate(x.responseBody)) {
        violations.push({ exchange: x.n, operation: `${x.method} ${found.template}`, status: x.status, errors: (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`) });
      }
    }
    return { judged, violations };
  }

  private deref(node: any): any {
    let n = node;
    for (let i = 0; i < 5 && n?.$ref; i++) n = n.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    return n;
  }
}
