/**
 * The RabbitMQ provider (docs/providers/rabbitmq.md): jobs with coalesced acks ({@code AckWatermark}), delays (the
 * delayed-message plugin or a TTL ladder), topics, broadcast, the declarer, the backlog probe and the dead-letter
 * queues, on channels that reopen after a failure ({@code SupervisedChannel}); queue and exchange names are in
 * {@code RabbitMqNames} (docs/wire-format.md). Imports {@code spi} and {@code core} only; only the mains and the CLI
 * reach it, through {@code ServiceLoader} (docs/architecture.md).
 */
package dev.backstage.runtime.rabbitmq;
