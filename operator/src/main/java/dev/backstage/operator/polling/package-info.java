/**
 * One polling loop per primary resource for the controllers that poll a broker beside their reconciler: the
 * backlog monitors ({@code autoscaler}) and the schedule firing ({@code schedule}). {@link
 * dev.backstage.operator.polling.PerResourcePoller} starts a resource's loop from its reconcile (so only the
 * leader polls), hands it fresher copies from the informer, stops it on deletion and stops every loop with the
 * operator. It writes nothing itself: each poller writes only the status fields it owns, through {@code status}.
 */
package dev.backstage.operator.polling;
