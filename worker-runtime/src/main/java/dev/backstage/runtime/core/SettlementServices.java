package dev.backstage.runtime.core;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The worker-wide parts every {@link SettlementMachine} shares.
 *
 * @param watchdog fires hard timeouts; it only claims, cancels and interrupts
 * @param timeoutSettlement settles a timed-out delivery, so a slow backend never delays the other timeouts
 * @param metrics where handler run times go
 */
record SettlementServices(ScheduledExecutorService watchdog, Executor timeoutSettlement, WorkerMetrics metrics) {}
