/**
 * The admission webhook's serving certificate, managed by the operator itself, so the chart needs neither
 * cert-manager nor a certificate generated at render time (which GitOps tools would see as a diff at every sync).
 *
 * <p>Design note. A self-signed CA and a serving certificate it signs live in one Secret in the operator's namespace
 * ({@link dev.backstage.operator.certificates.WebhookKeyMaterial}); every replica reads it, the first one to find
 * it missing or due for renewal writes it (optimistic concurrency on the Secret's resourceVersion, so replicas
 * converge on one pair). The ValidatingWebhookConfiguration's {@code caBundle} lists every CA that may have signed
 * a certificate a replica still serves: the current CA, the next one (published one step before it signs anything)
 * and the previous one until it expires. So a rotation never leaves the API server without trust in what any replica
 * serves. Each replica swaps the pair in its TLS key manager from the next handshake on, without a restart
 * ({@link dev.backstage.operator.certificates.ServingKeyManager}). What to renew when is pure code
 * ({@link dev.backstage.operator.certificates.RotationPlan}); the API calls are in
 * {@link dev.backstage.operator.certificates.WebhookCertificateManager}. Only {@code main} uses this package.
 */
package dev.backstage.operator.certificates;
