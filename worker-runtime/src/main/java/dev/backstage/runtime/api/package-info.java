/**
 * What applications use: {@link dev.backstage.runtime.api.Worker} and its builder, task registration
 * ({@code TaskModule}, {@code TaskBinder}, the handlers and their contexts), {@code Next} (what a handler returns),
 * enqueue options and the producer. It declares the worker only: the builder finds the implementation (the core)
 * through {@code WorkerFactory} and {@code ServiceLoader}. Imports {@code spi} only; {@code core}, the providers and
 * the mains import it (docs/architecture.md).
 */
package dev.backstage.runtime.api;
