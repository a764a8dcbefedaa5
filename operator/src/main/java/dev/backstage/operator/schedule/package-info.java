/**
 * Cron schedules of a topology: the firing loop enqueues each due tick once (claimed in status, so a second
 * operator or a restart does not fire it twice) and writes {@code status.schedules} only; the topology reconciler
 * starts and stops it.
 */
package dev.backstage.operator.schedule;
