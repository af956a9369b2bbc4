/**
 * Rules that the runtime, the audit and the projection share, each in one place: budgets
 * ({@link io.almanac.rules.BudgetRules}). Pure; they name nothing of {@code io.almanac.internal}.
 */
package io.almanac.rules;
