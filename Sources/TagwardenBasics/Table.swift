/// The index of a row in one kind of `Table` (a file's, an object's, an image's): a type of its own per table, so that
/// an image's index is never taken for an object's. Integer literals make one (tests name rows by number).
public protocol TableID: Strideable, Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral
where Stride == Int, IntegerLiteralType == Int {
    init(_ index: Int)
    /// The row's position in its table.
    var index: Int { get }
}

extension TableID {
    @inlinable public func distance(to other: Self) -> Int { other.index - index }
    @inlinable public func advanced(by n: Int) -> Self { Self(index + n) }
    @inlinable public init(integerLiteral value: Int) { self.init(value) }
    @inlinable public static func < (a: Self, b: Self) -> Bool { a.index < b.index }
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.index == b.index }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(index) }
    /// Sets and dictionaries of IDs hash an index with a 64-bit finalizer (MurmurHash3's `fmix64`) over the index and the
    /// table's seed: every bit of the index reaches every bit of the hash, as with SipHash, in a tenth of its
    /// instructions (a whole `Hasher` cost the fleet's audit 11 M instructions, Int's one-shot SipHash 18 M more).
    @inlinable public func _rawHashValue(seed: Int) -> Int {
        Int(truncatingIfNeeded: fmix64(UInt64(truncatingIfNeeded: index) ^ UInt64(truncatingIfNeeded: seed)))
    }
    public var description: String { String(index) }
}

/// MurmurHash3's 64-bit finalizer: every bit of `x` reaches every bit of the result.
@inlinable public func fmix64(_ x: UInt64) -> UInt64 {
    var x = x
    x ^= x >> 33
    x &*= 0xff51_afd7_ed55_8ccd
    x ^= x >> 33
    x &*= 0xc4ce_b9fe_1a85_ec53
    x ^= x >> 33
    return x
}

/// Rows addressed by their own kind of index (`ID`): an array whose indices are typed. Columns that belong to the same
/// rows (an object's namespace beside the object) are tables of the same `ID`.
@frozen
public struct Table<ID: TableID, Row>: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = ID
    public typealias Indices = Range<ID>
    public typealias SubSequence = Slice<Table>

    public var rows: [Row]

    @inlinable public init() { rows = [] }
    @inlinable public init(_ rows: [Row]) { self.rows = rows }
    @inlinable public init<S: Sequence>(_ rows: S) where S.Element == Row { self.rows = Array(rows) }
    @inlinable public init(repeating row: Row, count: Int) { rows = Array(repeating: row, count: count) }

    @inlinable public var startIndex: ID { ID(0) }
    @inlinable public var endIndex: ID { ID(rows.count) }
    @inlinable public var indices: Range<ID> { ID(0)..<ID(rows.count) }
    @inlinable public var count: Int { rows.count }
    @inlinable public var isEmpty: Bool { rows.isEmpty }
    @inlinable public func index(after i: ID) -> ID { ID(i.index + 1) }
    @inlinable public func index(before i: ID) -> ID { ID(i.index - 1) }
    @inlinable public func index(_ i: ID, offsetBy n: Int) -> ID { ID(i.index + n) }
    @inlinable public func distance(from a: ID, to b: ID) -> Int { b.index - a.index }

    @inlinable public subscript(id: ID) -> Row {
        _read { yield rows[id.index] }
        _modify { yield &rows[id.index] }
    }

    @inlinable public subscript(bounds: Range<ID>) -> Slice<Table> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: newValue) }
    }

    @inlinable public mutating func replaceSubrange<C: Collection>(_ range: Range<ID>, with new: C) where C.Element == Row {
        rows.replaceSubrange(range.lowerBound.index..<range.upperBound.index, with: new)
    }

    @inlinable public mutating func reserveCapacity(_ n: Int) { rows.reserveCapacity(n) }

    @inlinable public mutating func append(_ row: Row) { rows.append(row) }

    /// Appends `row` and returns its index.
    @inlinable @discardableResult public mutating func add(_ row: Row) -> ID {
        rows.append(row)
        return ID(rows.count - 1)
    }

    /// A column of the same rows: `transform` of each.
    @inlinable public func mapRows<T>(_ transform: (Row) throws -> T) rethrows -> Table<ID, T> { Table<ID, T>(try rows.map(transform)) }

    /// Each row with its index, as a copy: over rows of a wide struct (a file's facts) loop over `indices` instead.
    @inlinable public var withIDs: LazyMapSequence<EnumeratedSequence<[Row]>, (ID, Row)> {
        rows.enumerated().lazy.map { (ID($0.offset), $0.element) }
    }
}

extension Table: Sendable where Row: Sendable {}
extension Table: Equatable where Row: Equatable {}

extension Table: ExpressibleByArrayLiteral {
    @inlinable public init(arrayLiteral rows: Row...) { self.rows = rows }
}

extension Range where Bound: TableID {
    /// A column over these indices: `transform` of each.
    @inlinable public func column<T>(_ transform: (Bound) throws -> T) rethrows -> Table<Bound, T> { Table<Bound, T>(try map(transform)) }
}
