/// One group of a dictionary fetch as a store computed it (``RelationalGrouping``): each
/// fetched property's value by its name, as the predicate evaluator holds values, so that a
/// having-predicate reads it as it reads a group the context made.
package struct StoreGroup {
    let values: [String: EvaluationValue]
}
