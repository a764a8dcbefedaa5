/**
 * Kubernetes Events for the operator's resources: one recorder that deduplicates, rate-limits and writes in the
 * background, so a reconcile never waits on an Event.
 */
package dev.backstage.operator.events;
