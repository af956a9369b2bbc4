package io.almanac;

/**
 * What the API's value classes (the specs, policies, triggers, events and results that are built
 * by builders and named factories instead of public positional constructors) have in common with
 * a record: equality, hash and text from their {@link Parts}, stated once per class. Package-private,
 * so that it is no part of the API; its public methods are those of {@link Object}.
 */
abstract class Value {

  Value() {}

  /** @return the parts of this value's class, the same for every instance of it */
  abstract Parts parts();

  /**
   * @param other another object
   * @return whether it is a value of the same class with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other != null && other.getClass() == getClass() && parts().equal(this, other);
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return parts().hash(this);
  }

  /** @return every part, named, as a record would print them */
  @Override
  public String toString() {
    return parts().describe(this);
  }
}
