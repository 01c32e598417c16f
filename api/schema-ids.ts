// The source document's references to schema files (`./capacity-offer.json#/$defs/Page`) as the
// files' immutable ids under a schema base (`<base>/v0/capacity-offer#/$defs/Page`): the form
// GET /openapi.json serves. Pure and without imports, so that a test process can apply it to a
// document written once for the run (test/contract.ts) without loading the app.

type Json = any;

/** The source with every schema-file reference rewritten to its id under `schemaBase`. */
export function withSchemaIds(source: Json, schemaBase: string): Json {
  const rewrite = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node && typeof node === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(node)) {
        out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^\.\/([a-z0-9-]+)\.json/, `${schemaBase}/v0/$1`) : rewrite(v);
      }
      return out;
    }
    return node;
  };
  return rewrite(source);
}
