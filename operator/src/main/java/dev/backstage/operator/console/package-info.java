/**
 * The Backstage console: a web page served by the operator on its own port, where a user signed in with a Kubernetes
 * bearer token sees the pools and topologies their RBAC lets them {@code get}, each pool's recent history, its dead
 * letters and the topologies' schedules, and acts on them (redrive, delete, suspend) where RBAC lets them
 * {@code update}. Tokens are checked with TokenReview, every read and action with SubjectAccessReview; actions carry a
 * CSRF token and are recorded as Events on the resource with the user's name. Pure parts (history ring buffer, plot,
 * escaping, sessions) are separate from the HTTP server and the API calls.
 */
package dev.backstage.operator.console;
