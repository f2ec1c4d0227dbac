// AWS SDK for JavaScript v3 against `singletable serve`: create, put (with binary), get, conditional failure.
// Usage: node sdk_v3_smoke.mjs ENDPOINT TABLE   (prints one JSON line with what it saw)
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.SINGLETABLE_NODE_DIR, "package.json"));
const {
  DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand, ConditionalCheckFailedException,
} = require("@aws-sdk/client-dynamodb");

const [endpoint, table] = process.argv.slice(2);
const client = new DynamoDBClient({
  endpoint, region: "us-east-1", maxAttempts: 1,
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
const key = { PK: { S: "js" } };
await client.send(new CreateTableCommand({
  TableName: table, BillingMode: "PAY_PER_REQUEST",
  KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }],
  AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" }],
}));
await client.send(new PutItemCommand({
  TableName: table, Item: { ...key, bin: { B: new Uint8Array([0, 1, 254]) }, n: { N: "42" } },
}));
const got = await client.send(new GetItemCommand({ TableName: table, Key: key }));
let failure = null;
try {
  await client.send(new PutItemCommand({
    TableName: table, Item: key, ConditionExpression: "attribute_not_exists(PK)",
    ReturnValuesOnConditionCheckFailure: "ALL_OLD",
  }));
} catch (error) {
  failure = {
    name: error.name, message: error.message, modeled: error instanceof ConditionalCheckFailedException,
    status: error.$metadata.httpStatusCode, itemN: error.Item?.n?.N,
  };
}
console.log(JSON.stringify({ bin: Array.from(got.Item.bin.B), n: got.Item.n.N, failure }));
