/**
 * The {@code backstage} command line (docs/cli.md): enqueue and schedule jobs, inspect backlog, list and redrive dead
 * letters on any provider, through the providers' {@code spi}. Each failure is one line that says what to change.
 * A top layer beside {@code main}: it imports {@code spi}, {@code api}, {@code core}, {@code config} and
 * {@code logging}, and nothing imports it (docs/architecture.md).
 */
package dev.backstage.runtime.cli;
