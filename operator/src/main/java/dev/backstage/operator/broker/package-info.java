/**
 * The operator's own connections to the brokers a topology names, for reading (backlog probes): the
 * connection URL from the topology's Secret, one {@link dev.backstage.runtime.spi.Provider} per topology
 * shared by its pools, and scrubbing of credentials from broker error text.
 *
 * <p>The topology reconciler (package {@code operator.topology}) has the same need for declaring broker
 * objects; the two can share this package.
 */
package dev.backstage.operator.broker;
