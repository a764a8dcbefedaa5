/**
 * The runtime.yaml model ({@link dev.backstage.runtime.config.RuntimeConfig}): what the operator renders into a
 * pool's ConfigMap and the container main reads, with its duration syntax and file loading. It holds no credentials.
 * Imports {@code spi} only; the mains, the CLI and the operator (the one runtime package it shares besides
 * {@code spi}, {@code logging} and the probe server) import it (docs/architecture.md).
 */
package dev.backstage.runtime.config;
