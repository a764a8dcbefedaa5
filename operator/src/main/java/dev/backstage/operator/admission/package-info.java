/**
 * The validating admission webhook for BackstageTopology and BackstageWorkerPool, served over HTTPS on
 * {@code /validate/backstagetopology} and {@code /validate/backstageworkerpool} (the Helm chart's contract).
 *
 * <p>Design note. The webhook framework's {@code AdmissionController} does the AdmissionReview plumbing; our
 * {@link dev.backstage.operator.admission.AdmissionCheck}s return denials and warnings (the framework's
 * {@code Validator} cannot warn). Every denial names the field and what to set. The HTTP layer never answers 500 or
 * hangs: an unreadable request is denied in an AdmissionReview when its uid can be read, else answered 400. The
 * rules the API server can check alone are in the CRD schema and CEL rules as well. Admission does not dial brokers
 * (it would make every apply as slow and fragile as the broker): where only the broker knows (the RabbitMQ
 * delayed-message plugin) the user states it ({@code pluginInstalled: true}) and the topology reconciler checks it.
 * The key pair is re-read when cert-manager rotates it. The server cannot be exhausted by slow or stalled callers
 * ({@link dev.backstage.operator.admission.WebhookLimits}: bounded threads and queue, a deadline per exchange, a
 * bounded body), and names that refer to other objects are checked as Kubernetes names before any lookup
 * ({@code ReferenceNames}).
 */
package dev.backstage.operator.admission;
