/**
 * The container's entry point ({@link dev.backstage.runtime.main.RuntimeMain}): builds a worker from runtime.yaml and
 * the environment ({@code WorkerFromConfig}), finds task modules on the class path, serves the probes and metrics
 * ({@code ProbeServer}, also used by the operator) and shuts down on SIGTERM. The top layer: it imports {@code spi},
 * {@code api}, {@code config} and {@code logging} and finds the core and the providers through {@code ServiceLoader};
 * nothing in the runtime imports it (docs/architecture.md).
 */
package dev.backstage.runtime.main;
