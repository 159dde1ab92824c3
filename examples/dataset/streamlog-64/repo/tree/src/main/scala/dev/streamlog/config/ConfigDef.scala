package dev.streamlog.config

import java.util.Properties
import scala.collection.mutable
import scala.jdk.CollectionConverters._

final class ConfigException(message: String) extends RuntimeException(message)

sealed trait ConfigType
object ConfigType {
  case object IntType extends ConfigType
  case object LongType extends ConfigType
  case object DoubleType extends ConfigType
  case object BooleanType extends ConfigType
  case object StringType extends ConfigType
  case object ListType extends ConfigType
}

/** Checks a parsed value; throws ConfigException with a message naming the key. */
trait Validator {
  def ensureValid(name: String, value: Any): Unit
}

object Validator {
  def atLeast(min: Double): Validator = (name: String, value: Any) => value match {
    case n: Number if n.doubleValue() < min => throw new ConfigException(s"Invalid value $n for configuration $name: Value must be at least $min")
    case _ =>
  }

  def between(min: Double, max: Double): Validator = (name: String, value: Any) => value match {
    case n: Number if n.doubleValue() < min || n.doubleValue() > max =>
      throw new ConfigException(s"Invalid value $n for configuration $name: Value must be between $min and $max")
    case _ =>
  }

  def in(allowed: String*): Validator = (name: String, value: Any) => value match {
    case s: String if !allowed.contains(s) =>
      throw new ConfigException(s"Invalid value $s for configuration $name: String must be one of: ${allowed.mkString(", ")}")
    case l: List[_] if l.exists(v => !allowed.contains(v.toString)) =>
      throw new ConfigException(s"Invalid value ${l.mkString(",")} for configuration $name: each entry must be one of: ${allowed.mkString(", ")}")
    case _ =>
  }
}

/** A null default means "not set": the value is null unless the key is given. */
final case class ConfigKey(name: String, tpe: ConfigType, default: Option[Any], required: Boolean, validator: Option[Validator], doc: String)

/**
 * The definition of a set of configuration keys: type, default, validation, documentation.
 * Parsing checks every key, so a bad value fails at startup instead of at first use.
 */
final class ConfigDef {
  private val keys = mutable.LinkedHashMap.empty[String, ConfigKey]

  def define(name: String, tpe: ConfigType, default: Any, validator: Validator, doc: String): ConfigDef =
    add(ConfigKey(name, tpe, Option(default), required = false, Option(validator), doc))

  def define(name: String, tpe: ConfigType, default: Any, doc: String): ConfigDef =
    add(ConfigKey(name, tpe, Option(default), required = false, None, doc))

  /** A key without a default: it must be set. */
  def defineRequired(name: String, tpe: ConfigType, doc: String): ConfigDef =
    add(ConfigKey(name, tpe, None, required = true, None, doc))

  private def add(key: ConfigKey): ConfigDef = {
    if (keys.contains(key.name)) throw new ConfigException(s"Configuration ${key.name} is defined twice.")
    keys(key.name) = key
    this
  }

  def names: Set[String] = keys.keySet.toSet

  def parse(props: Properties): Map[String, Any] = {
    val provided = props.stringPropertyNames().asScala
    keys.values.map { key =>
      val value =
        if (provided.contains(key.name)) parseValue(key, props.getProperty(key.name).trim)
        else if (key.required) throw new ConfigException(s"Missing required configuration \"${key.name}\" which has no default value.")
        else key.default.orNull
      if (value != null) key.validator.foreach(_.ensureValid(key.name, value))
      key.name -> value
    }.toMap
  }

  private def parseValue(key: ConfigKey, value: String): Any = {
    def bad(expected: String) = new ConfigException(s"Invalid value $value for configuration ${key.name}: Expected value to be $expected")
    key.tpe match {
      case ConfigType.IntType => value.toIntOption.getOrElse(throw bad("a 32-bit integer"))
      case ConfigType.LongType => value.toLongOption.getOrElse(throw bad("a 64-bit integer"))
      case ConfigType.DoubleType => value.toDoubleOption.getOrElse(throw bad("a double"))
      case ConfigType.BooleanType => value.toLowerCase match {
        case "true" => true
        case "false" => false
        case _ => throw bad("either true or false")
      }
      case ConfigType.StringType => value
      case ConfigType.ListType => value.split(",").map(_.trim).filter(_.nonEmpty).toList
    }
  }

  /** A Markdown table of the keys, for the docs. */
  def toMarkdown: String = {
    val rows = keys.values.map(k => s"| `${k.name}` | ${k.tpe.toString.stripSuffix("Type").toLowerCase} | ${k.default.map(d => s"`$d`").getOrElse("")} | ${k.doc} |")
    ("| name | type | default | description |" +: "|---|---|---|---|" +: rows.toSeq).mkString("\n")
  }
}
