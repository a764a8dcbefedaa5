/**
 * The Kafka provider (docs/providers/kafka.md): jobs settled by contiguous offset commits, topics, broadcast, the
 * declarer, the backlog probe and the dead-letter topics. A job value is read in one streaming pass
 * ({@code JobValueFields}, through {@code JobValueDecoder}, which lets the core bind the payload in that pass) and
 * written by {@code JobValueEncoder}; a dead-letter value is written and read by {@code DeadLetterValueCodec}
 * (docs/wire-format.md). Imports {@code spi}, {@code api} and {@code core} only.
 */
package dev.backstage.runtime.kafka;
