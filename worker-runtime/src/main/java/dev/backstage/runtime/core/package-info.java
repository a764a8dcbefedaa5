/**
 * The worker's engine, between the application's {@code api} and the providers' {@code spi}: the lifecycle
 * ({@link dev.backstage.runtime.core.WorkerEngine}), the producer, the scheduler, payload decoding
 * ({@link dev.backstage.runtime.core.PayloadCodec}, the one place a delivery's {@code spi.Payload} is decoded) and
 * settlement: one {@link dev.backstage.runtime.core.SettlementMachine} per delivery decides when a delivery is
 * claimed, timed out, settled, abandoned and finished, and an {@code OutcomePolicy} (jobs: {@code JobOutcomes}; topic
 * messages and broadcasts: {@code TopicOutcomes}) what ack, retry and dead-letter mean.
 * {@link dev.backstage.runtime.core.DeliveryProcessor} and {@code TopicProcessor} only hand deliveries to the handler
 * pool. Imports {@code api} and {@code spi} only; the providers import it (docs/architecture.md).
 */
package dev.backstage.runtime.core;
