// Kubernetes name rules shared by manifests, resources and the API: one definition of a DNS label.
import { z } from 'zod';

/** RFC 1123 label: what namespaces, Secrets, label values of ours and office ids must be. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const dnsLabel = z.string().min(1).max(63).regex(DNS_LABEL, 'lowercase letters, digits and hyphens');
