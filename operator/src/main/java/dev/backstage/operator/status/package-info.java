/**
 * The one way controllers write status beside a reconciler: a JSON patch of only the fields that changed, against
 * the resourceVersion it was computed from, retried from a fresh read on conflict.
 */
package dev.backstage.operator.status;
