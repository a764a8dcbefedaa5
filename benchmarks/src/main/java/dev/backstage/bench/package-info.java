/**
 * The broker benchmarks run by {@code bin/bench} (docs/benchmarks.md): the Worker against a raw client loop doing the
 * same work, a bare ceiling and Spring's listener containers on Redis, RabbitMQ and Kafka, plus cluster, replication,
 * latency and redrive runs. {@code Rounds} runs the sides in rotated rounds and prints medians, spreads and ratios.
 * The module's one package; it uses the runtime as an application would ({@code api} and the providers) and is not
 * imported by any other module.
 */
package dev.backstage.bench;
