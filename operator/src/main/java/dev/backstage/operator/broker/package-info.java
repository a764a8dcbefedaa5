/**
 * The operator's connections to the brokers topologies name, for reading backlog: one
 * {@link dev.backstage.runtime.spi.Provider} per topology shared by all its pools ({@link
 * dev.backstage.operator.broker.ProbeProviders}), built from the topology as the workers' runtime.yaml is. The
 * Secret is read and errors scrubbed with the topology reconciler's {@code ConnectionSecrets} and
 * {@code SecretScrubber}; its {@code BrokerConnections} serves one user per topology at a time, these serve many.
 */
package dev.backstage.operator.broker;
