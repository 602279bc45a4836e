// Reads sample values out of a Prometheus text exposition (just what the benchmark needs).

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ name: m[1] ?? '', labels, value: Number(m[3]) });
  }
  return samples;
}

export function sum(
  samples: Sample[],
  name: string,
  where: (l: Record<string, string>) => boolean = () => true,
) {
  return samples.filter((s) => s.name === name && where(s.labels)).reduce((t, s) => t + s.value, 0);
}
