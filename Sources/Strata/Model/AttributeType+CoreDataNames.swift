/// Core Data's names for attribute types and delete rules (`NSAttributeType`,
/// `NSDeleteRule`), so that code building a model with Core Data's mutable API reads as it
/// did: `attribute.attributeType = .stringAttributeType`.
extension AttributeType {
    public static var integer16AttributeType: Self { .integer16 }
    public static var integer32AttributeType: Self { .integer32 }
    public static var integer64AttributeType: Self { .integer64 }
    public static var decimalAttributeType: Self { .decimal }
    public static var doubleAttributeType: Self { .double }
    public static var floatAttributeType: Self { .float }
    public static var stringAttributeType: Self { .string }
    public static var booleanAttributeType: Self { .boolean }
    public static var dateAttributeType: Self { .date }
    public static var binaryDataAttributeType: Self { .binaryData }
    public static var UUIDAttributeType: Self { .uuid }
    public static var URIAttributeType: Self { .uri }
    public static var transformableAttributeType: Self { .transformable }
    public static var objectIDAttributeType: Self { .objectID }
    public static var undefinedAttributeType: Self { .undefined }
    public static var compositeAttributeType: Self { .composite }
}

extension DeleteRule {
    public static var noActionDeleteRule: Self { .noAction }
    public static var nullifyDeleteRule: Self { .nullify }
    public static var cascadeDeleteRule: Self { .cascade }
    public static var denyDeleteRule: Self { .deny }
}
