/**
 * Cron schedules of a topology: the firing, on the operator's one per-resource polling loop ({@code polling}),
 * turns each topology's schedules once a second, enqueues each due tick once (claimed with its dedupe key, so a
 * second operator or a restart does not fire it twice) and writes the schedule fields of status only
 * ({@code schedules}, {@code scheduleSummary}, {@code lastFiredTick}, enforced by {@code status.StatusPatcher}); the
 * topology reconciler starts it and the topology's deletion stops it.
 */
package dev.backstage.operator.schedule;
