/**
 * Broker access shared by every controller: a topology's connection Secrets ({@link
 * dev.backstage.operator.broker.ConnectionSecrets}), its TLS material written to files ({@link
 * dev.backstage.operator.broker.TlsFiles}), the scrubbing of secrets out of broker messages ({@link
 * dev.backstage.operator.broker.SecretScrubber}), broker errors mapped to condition reasons ({@link
 * dev.backstage.operator.broker.BrokerFailures}) and the probe connections that read backlog, one per topology
 * shared by all its pools ({@link dev.backstage.operator.broker.ProbeProviders}). It sits below the topology, pool,
 * autoscaler and schedule packages and sees only {@code model} and {@code workload}.
 */
package dev.backstage.operator.broker;
