/**
 * The Redis Streams provider (docs/providers/redis.md), the default: jobs read by consumer groups and reclaimed when
 * a worker dies, delays, dedupe, topics, broadcast, the declarer, the backlog probe and the dead-letter stream, on a
 * single node, a Sentinel group or a Redis Cluster; key names are in {@code RedisKeys} (docs/wire-format.md).
 * Imports {@code spi} and {@code core} only; only the mains and the CLI reach it, through {@code ServiceLoader}
 * (docs/architecture.md).
 */
package dev.backstage.runtime.redis;
