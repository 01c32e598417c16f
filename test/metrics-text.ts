// A reader of the Prometheus text exposition format, enough for the tests' assertions: metric
// families with their TYPE and samples (name, labels, value). Scrapers are the real consumers.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Family {
  type: string;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusTextFormat(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const familyOf = (sample: string) => {
    for (const suffix of ['', '_bucket', '_count', '_sum']) {
      const base = suffix && sample.endsWith(suffix) ? sample.slice(0, -suffix.length) : sample;
      if (families.has(base)) return families.get(base)!;
    }
    throw new Error(`sample ${sample} before its # TYPE line`);
  };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      families.set(type[1], { type: type[2], samples: [] });
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) labels[k] = v.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    familyOf(m[1]).samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return families;
}
