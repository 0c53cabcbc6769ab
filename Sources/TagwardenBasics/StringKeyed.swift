#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A string as the key of a set or dictionary, compared and hashed by its UTF-8 bytes, as Go compares the paths and
/// names kustomize and Flux match (no Unicode canonical equivalence). `String`'s own hashing is SipHash over the
/// normalised bytes and its `==` a normalisation-aware comparison: the model's maps of paths and names paid about 400
/// instructions a lookup, this hash a few a word.
@frozen
public struct StringKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let string: String

    @inlinable public init(_ string: String) { self.string = string }

    public var description: String { string }

    @inlinable public static func == (a: StringKey, b: StringKey) -> Bool {
        let n = a.string.utf8.count
        guard n == b.string.utf8.count else { return false }
        return a.withBytes { x in b.withBytes { y in n == 0 || memcmp(x.baseAddress!, y.baseAddress!, n) == 0 } }
    }

    @inlinable public static func < (a: StringKey, b: StringKey) -> Bool {
        a.withBytes { x in b.withBytes { y in
            let n = min(x.count, y.count)
            let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
            return c != 0 ? c < 0 : x.count < y.count
        } }
    }

    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }

    /// Eight bytes a step, each folded in with a multiply and a rotation (the last eight read again where the length is
    /// no multiple of eight), and a 64-bit finalizer (MurmurHash3's `fmix64`) over the result and the table's seed.
    @inlinable public func _rawHashValue(seed: Int) -> Int {
        withBytes { b in
            var h = UInt64(truncatingIfNeeded: seed) ^ (UInt64(truncatingIfNeeded: b.count) &* 0x9E37_79B9_7F4A_7C15)
            @inline(__always) func fold(_ w: UInt64) {
                let x = h ^ (w &* 0x87C3_7B91_1142_53D5)
                h = (x &<< 31 | x &>> 33) &* 0x4CF5_AD43_2745_937F
            }
            if let base = b.baseAddress {
                let n = b.count
                if n >= 8 {
                    var i = 0
                    while i + 8 <= n {
                        fold(base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                        i += 8
                    }
                    if i < n { fold(base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) }
                } else if n > 0 {
                    var w: UInt64 = 0
                    for i in 0..<n { w |= UInt64(b[i]) &<< UInt64(8 * i) }
                    fold(w)
                }
            }
            return Int(truncatingIfNeeded: fmix64(h))
        }
    }

    /// The string's UTF-8 bytes in place (a Swift string's storage, or a small string's copy on the stack).
    @inlinable func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let r = string.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return r }
        return Array(string.utf8).withUnsafeBytes(body)
    }
}

/// A dictionary keyed by strings hashed as `StringKey`, used as `[String: Value]` is.
@frozen
public struct StringMap<Value>: Sequence {
    public typealias Element = (key: String, value: Value)
    @usableFromInline var storage: [StringKey: Value]

    @inlinable public init() { storage = [:] }
    @inlinable public init(minimumCapacity: Int) { storage = Dictionary(minimumCapacity: minimumCapacity) }

    @inlinable public subscript(key: String) -> Value? {
        get { storage[StringKey(key)] }
        set { storage[StringKey(key)] = newValue }
        _modify { yield &storage[StringKey(key)] }
    }

    @inlinable public subscript(key: String, default value: @autoclosure () -> Value) -> Value {
        get { storage[StringKey(key), default: value()] }
        _modify { yield &storage[StringKey(key), default: value()] }
    }

    @inlinable public var isEmpty: Bool { storage.isEmpty }
    @inlinable public var count: Int { storage.count }
    @inlinable public var keys: LazyMapSequence<Dictionary<StringKey, Value>.Keys, String> { storage.keys.lazy.map(\.string) }
    @inlinable public var values: Dictionary<StringKey, Value>.Values { storage.values }
    @inlinable public mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(n) }
    @discardableResult @inlinable public mutating func updateValue(_ value: Value, forKey key: String) -> Value? {
        storage.updateValue(value, forKey: StringKey(key))
    }
    @discardableResult @inlinable public mutating func removeValue(forKey key: String) -> Value? {
        storage.removeValue(forKey: StringKey(key))
    }
    @inlinable public func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> StringMap<T> {
        var out = StringMap<T>()
        out.storage = try storage.mapValues(transform)
        return out
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline var base: Dictionary<StringKey, Value>.Iterator
        @inlinable init(_ base: Dictionary<StringKey, Value>.Iterator) { self.base = base }
        @inlinable public mutating func next() -> (key: String, value: Value)? {
            base.next().map { (key: $0.key.string, value: $0.value) }
        }
    }
    @inlinable public func makeIterator() -> Iterator { Iterator(storage.makeIterator()) }
    @inlinable public var underestimatedCount: Int { storage.count }
}

extension StringMap: ExpressibleByDictionaryLiteral {
    @inlinable public init(dictionaryLiteral elements: (String, Value)...) {
        storage = Dictionary(minimumCapacity: elements.count)
        for (k, v) in elements { storage[StringKey(k)] = v }
    }
}

extension StringMap: Sendable where Value: Sendable {}
extension StringMap: Equatable where Value: Equatable {}

/// A set of strings hashed as `StringKey`, used as `Set<String>` is.
@frozen
public struct StringSet: Sequence, Sendable, Equatable, ExpressibleByArrayLiteral {
    @usableFromInline var storage: Set<StringKey>

    @inlinable public init() { storage = [] }
    @inlinable public init(minimumCapacity: Int) { storage = Set(minimumCapacity: minimumCapacity) }
    @inlinable public init<S: Sequence>(_ strings: S) where S.Element == String {
        storage = Set(minimumCapacity: strings.underestimatedCount)
        for s in strings { storage.insert(StringKey(s)) }
    }
    @inlinable public init(arrayLiteral elements: String...) { self.init(elements) }

    @inlinable public func contains(_ s: String) -> Bool { storage.contains(StringKey(s)) }
    @discardableResult @inlinable public mutating func insert(_ s: String) -> (inserted: Bool, memberAfterInsert: String) {
        let r = storage.insert(StringKey(s))
        return (r.inserted, r.memberAfterInsert.string)
    }
    @discardableResult @inlinable public mutating func remove(_ s: String) -> String? { storage.remove(StringKey(s))?.string }
    @inlinable public mutating func formUnion<S: Sequence>(_ other: S) where S.Element == String {
        for s in other { storage.insert(StringKey(s)) }
    }
    @inlinable public mutating func formUnion(_ other: StringSet) { storage.formUnion(other.storage) }
    @inlinable public func union(_ other: StringSet) -> StringSet { var s = self; s.formUnion(other); return s }
    @inlinable public var isEmpty: Bool { storage.isEmpty }
    @inlinable public var count: Int { storage.count }
    @inlinable public mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(n) }

    public struct Iterator: IteratorProtocol {
        @usableFromInline var base: Set<StringKey>.Iterator
        @inlinable init(_ base: Set<StringKey>.Iterator) { self.base = base }
        @inlinable public mutating func next() -> String? { base.next()?.string }
    }
    @inlinable public func makeIterator() -> Iterator { Iterator(storage.makeIterator()) }
    @inlinable public var underestimatedCount: Int { storage.count }
}
