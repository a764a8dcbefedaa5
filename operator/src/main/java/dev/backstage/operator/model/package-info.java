/**
 * The custom resources as Java types ({@code BackstageWorkerPool}, {@code BackstageTopology}, their specs and
 * status), the condition helpers and the closed sets of condition reasons. Data only: no API calls, no broker
 * access ({@code PackageGraphTest}). The CRDs under {@code crds/} are generated from these classes.
 */
package dev.backstage.operator.model;
