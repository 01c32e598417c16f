// The implementation's own OpenAPI document, against which every answer the kit received is
// validated (JSON Schema validation family): the operation found by method and path template, the
// response by status (or `default`), its declared headers, its media type and that media type's
// schema. What the document does not describe is a violation, never passed over.
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

  /**
   * The violations among these exchanges. Every answer is judged, none passed over: an operation,
   * a status, a media type or a body the document does not describe is a violation, as is a
   * header it declares required but that is missing, or one whose value breaks its schema (the
   * ETag of a read or a command, for one).
   */
  validate(exchanges: Exchange[]): { judged: number; violations: Violation[] } {
    let judged = 0;
    const violations: Violation[] = [];
    for (const x of exchanges) {
      if (x.error) continue;
      judged++;
      const path = new URL(x.url).pathname;
      const found = this.operations.find((o) => o.method === x.method.toLowerCase() && o.pattern.test(path));
      const fail = (operation: string, errors: string[]) => violations.push({ exchange: x.n, operation, status: x.status, errors });
      if (!found) {
        fail(`${x.method} ${path}`, ['the document describes no such operation']);
        continue;
      }
      const operation = `${x.method} ${found.template}`;
      const responses = found.op.responses ?? {};
      const key = responses[String(x.status)] ? String(x.status) : responses[`${String(x.status)[0]}XX`] ? `${String(x.status)[0]}XX` : responses.default ? 'default' : undefined;
      if (!key) {
        fail(operation, [`status ${x.status} is not documented`]);
        continue;
      }
      const response = this.deref(responses[key]);
      const errors = [...this.headerErrors(response, x), ...this.bodyErrors(response, responses[key], found, key, x)];
      if (errors.length) fail(operation, errors);
    }
    return { judged, violations };
  }

  /** Declared headers: a required one present, each present one valid against its schema. */
  private headerErrors(response: any, x: Exchange): string[] {
    const errors: string[] = [];
    for (const [name, declared] of Object.entries<any>(response?.headers ?? {})) {
      const header = this.deref(declared);
      const value = x.responseHeaders[name.toLowerCase()];
      if (value === undefined) {
        if (header?.required) errors.push(`header ${name} is required and missing`);
        continue;
      }
      const schema = this.deref(header?.schema);
      if (!schema || typeof schema !== 'object') continue;
      const cacheKey = `header:${JSON.stringify(schema)}`;
      let validate = this.compiled.get(cacheKey);
      if (!validate) {
        validate = this.ajv.compile({ ...schema, $schema: undefined });
        this.compiled.set(cacheKey, validate);
      }
      if (!validate(schema.type === 'integer' || schema.type === 'number' ? Number(value) : value)) errors.push(`header ${name} ${JSON.stringify(value)} ${validate.errors?.[0]?.message ?? 'breaks its schema'}`);
    }
    return errors;
  }

  /** The body: of a media type the response declares, valid against its schema; none where it declares none. */
  private bodyErrors(response: any, given: any, found: { template: string; method: string }, key: string, x: Exchange): string[] {
    const type = (x.responseHeaders['content-type'] ?? '').split(';')[0].trim();
    const content = response?.content ?? {};
    const hasBody = x.responseBody !== undefined;
    if (!hasBody) return Object.keys(content).length && x.status !== 204 && x.status !== 304 && x.method !== 'HEAD' ? ['no body, where the document describes one'] : [];
    if (!Object.keys(content).length) return [`a body (${type || 'no content type'}) where the document describes none`];
    if (!content[type]) return [`media type ${type || '(none)'} is not one the document describes (${Object.keys(content).join(', ')})`];
    if (!/json/.test(type)) return [];
    if (typeof x.responseBody !== 'object') return ['the body is not JSON'];
    const escaped = type.replace(/~/g, '~0').replace(/\//g, '~1');
    const pointer = `/paths/${found.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${found.method}/responses/${key}`;
    const schemaRef = given.$ref ? `urn:conformance:openapi#${given.$ref.slice(1)}/content/${escaped}/schema` : `urn:conformance:openapi#${pointer}/content/${escaped}/schema`;
    let validate = this.compiled.get(schemaRef);
    if (!validate) {
      validate = this.ajv.compile({ $ref: schemaRef });
      this.compiled.set(schemaRef, validate);
    }
    if (validate(x.responseBody)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
  }

  /**
   * The schemas the document references by URL (a document that is not bundled), fetched and
   * added, and the ones they reference in turn, so that every answer can be judged. Answers the
   * URLs that could not be had.
   */
  async loadReferences(fetchJson: (url: string) => Promise<any | undefined>): Promise<string[]> {
    const loaded = new Set<string>();
    const failed: string[] = [];
    const pending = new Set<string>();
    const collect = (node: any, base: string | undefined) => {
      if (!node || typeof node !== 'object') return;
      const here = typeof node.$id === 'string' && base !== undefined ? new URL(node.$id, base).href : typeof node.$id === 'string' && /^https?:/.test(node.$id) ? node.$id : base;
      if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) {
        try {
          const url = new URL(node.$ref, here).href.split('#')[0];
          if (/^https?:/.test(url) && !loaded.has(url) && !this.ajv.getSchema(url)) pending.add(url);
        } catch {
          // not a URL the kit can fetch: compiling names it
        }
      }
      for (const [key, value] of Object.entries(node)) if (key !== 'enum' && key !== 'const' && key !== 'example' && key !== 'examples') collect(value, here);
    };
    collect(this.doc, undefined);
    for (let round = 0; round < 10 && pending.size; round++) {
      const urls = [...pending];
      pending.clear();
      for (const url of urls) {
        loaded.add(url);
        const schema = await fetchJson(url).catch(() => undefined);
        if (!schema || typeof schema !== 'object') {
          failed.push(url);
          continue;
        }
        const id = typeof schema.$id === 'string' ? schema.$id : url;
        if (!this.ajv.getSchema(id)) this.ajv.addSchema({ ...schema, $id: id });
        if (id !== url && !this.ajv.getSchema(url)) this.ajv.addSchema({ ...schema, $id: url });
        collect(schema, url);
      }
    }
    return failed;
  }

  private deref(node: any): any {
    let n = node;
    for (let i = 0; i < 5 && n?.$ref; i++) n = n.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    return n;
  }
}
