// Names a Kubernetes API request the way apiserver metrics do (verb + resource), from its method and URL.

export interface RequestLabels {
  verb: 'list' | 'watch' | 'get' | 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'other';
  /** Plural resource, with `/status` etc. for subresources, e.g. `agentbindings/status`. */
  resource: string;
}

// /api/v1/... or /apis/<group>/<version>/..., then optional namespaces/<ns>, then <plural>[/<name>[/<sub>]].
// A group-version path without a resource is discovery (client-node asks it to map kinds to plurals).
function resourcePath(pathname: string): { plural: string; named: boolean; sub?: string } | undefined {
  const parts = pathname.split('/').filter(Boolean);
  let rest: string[];
  if (parts[0] === 'api') rest = parts.slice(2);
  else if (parts[0] === 'apis') rest = parts.slice(3);
  else return undefined;
  if (rest.length === 0) return { plural: 'discovery', named: true };
  // `namespaces/<ns>/<plural>` is namespaced; a bare `namespaces[/<name>]` is the Namespace resource.
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [plural, name, sub] = rest;
  if (!plural) return undefined;
  return { plural, named: name !== undefined, ...(sub ? { sub } : {}) };
}

export function requestLabels(method: string, url: string, contentType?: string): RequestLabels {
  const parsed = new URL(url, 'https://kubernetes.invalid');
  const path = resourcePath(parsed.pathname);
  if (!path) return { verb: 'other', resource: parsed.pathname };
  const resource = path.sub ? `${path.plural}/${path.sub}` : path.plural;
  switch (method.toUpperCase()) {
    case 'GET':
      if (parsed.searchParams.get('watch') === 'true' || parsed.searchParams.get('watch') === '1')
        return { verb: 'watch', resource };
      return { verb: path.named ? 'get' : 'list', resource };
    case 'POST':
      return { verb: 'create', resource };
    case 'PUT':
      return { verb: 'update', resource };
    case 'PATCH':
      return { verb: contentType?.startsWith('application/apply-patch') ? 'apply' : 'patch', resource };
    case 'DELETE':
      return { verb: 'delete', resource };
    default:
      return { verb: 'other', resource };
  }
}
