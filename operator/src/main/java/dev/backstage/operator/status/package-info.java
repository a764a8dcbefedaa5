/**
 * The one way controllers write status beside a reconciler: a JSON patch of only the fields that changed, against
 * the resourceVersion it was computed from, retried from a fresh read on conflict, and only of the fields the
 * writer owns ({@code StatusFields}: one writer per status field, checked on every write).
 */
package dev.backstage.operator.status;
