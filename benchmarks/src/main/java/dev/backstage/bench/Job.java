package dev.backstage.bench;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The payload every side decodes each job into: {@code {"n": 123}}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Job(int n) {}
