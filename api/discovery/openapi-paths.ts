// Pure: the OpenAPI document names each path the way clients call it. A plugin's root route is
// registered as `<prefix>/`, but the server answers the bare prefix too, and the spec lists `GET /api/v1`.
export function withoutTrailingSlashes<D extends { paths?: Record<string, unknown> }>(doc: D): D {
  if (!doc.paths) return doc;
  const paths = Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [
      path.length > 1 ? path.replace(/\/+$/, '') : path,
      item,
    ]),
  );
  return { ...doc, paths };
}
