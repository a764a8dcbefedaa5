/**
 * The topology reconciler: a BackstageTopology becomes broker objects, declared through the runtime provider's
 * {@code TopologyDeclarer} (the operator speaks no broker protocol).
 *
 * <p>Design note. Each reconcile reads the connection Secret with the client (Secrets are not watched: caching every
 * Secret of the cluster is too high a price for noticing an edit a poll sooner), opens or reuses a provider
 * ({@link dev.backstage.operator.topology.BrokerConnections}, keyed by topology uid and fingerprinted by the Secret's
 * version and the settings), checks its health, inspects, and declares only when something is missing. It then
 * reschedules itself after {@code BACKSTAGE_TOPOLOGY_POLL_INTERVAL} (30 s): that poll is what re-declares objects
 * deleted on the broker and what notices a fixed Secret or a returning broker. Failures are outcomes:
 * {@code Ready=False} with a reason from {@link dev.backstage.operator.model.ReadyReason} and the broker's own
 * message, passed through {@link dev.backstage.operator.broker.SecretScrubber} before it reaches status, Events or
 * logs. Status is patched only when it changed. Deletion: only {@code deletionPolicy: delete} puts a finalizer on a
 * topology (a retained one is deleted without the operator); {@code delete} deletes the objects and gives up after a bounded number of attempts (counted in annotations)
 * with a Warning Event, so a dead broker never holds a namespace.
 */
package dev.backstage.operator.topology;
