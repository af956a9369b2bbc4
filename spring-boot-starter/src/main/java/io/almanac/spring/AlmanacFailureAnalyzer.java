package io.almanac.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Says a refused Almanac property at start as Spring Boot says its own: what, where, and what to do. */
final class AlmanacFailureAnalyzer extends AbstractFailureAnalyzer<AlmanacPropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable root, AlmanacPropertyException cause) {
    String key = cause.key() == null ? "the Almanac property" : cause.key();
    return new FailureAnalysis("The Almanac node refused its configuration: " + cause.getMessage(),
        "Correct " + key + (cause.origin() == null ? "" : " where it is set") + "; docs/configuration.md lists every "
            + "key with its allowed values, docs/spring-boot.md how Spring properties map to them.", cause);
  }
}
