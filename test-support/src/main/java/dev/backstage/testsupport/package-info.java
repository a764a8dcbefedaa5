/**
 * Real brokers and helpers for tests: in-process Kafka (one broker or a cluster), private Redis groups
 * ({@link dev.backstage.testsupport.PrivateRedisCluster}, {@link dev.backstage.testsupport.PrivateRedisSentinel},
 * {@link dev.backstage.testsupport.TlsRedis}) for tests that must not touch the shared ones, the local Kubernetes
 * control plane, certificates, unique names and a simulated clock.
 */
package dev.backstage.testsupport;
