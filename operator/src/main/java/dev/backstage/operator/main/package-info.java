/**
 * The operator process: settings from the environment, the JOSDK operator with its controllers and shared
 * clients, leader election, the admission webhook server and the health endpoints. The top of the package graph:
 * nothing imports it.
 */
package dev.backstage.operator.main;
