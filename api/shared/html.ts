// Minimal, dependency-free HTML rendering for the few pages people (not agents) read: sign-in, consent, billing.

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1d1b26; }
  h1 { font-size: 1.8rem; } .plans { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
  .plan { border: 1px solid #d9d4ea; border-radius: .5rem; padding: 1rem; } .price { font-size: 1.4rem; font-weight: 600; }
  code { background: #f3f1fa; padding: 0 .25rem; border-radius: .2rem; } .muted { color: #5d5870; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}
